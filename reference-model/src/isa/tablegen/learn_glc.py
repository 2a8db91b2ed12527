from learn import *
import json
F=Field
d=json.load(open('other_learn.json'))
for cpu in ('gfx1013','gfx1030'):
    for seg,nm,sa in ((0,'FLAT',0x7d),(1,'SCRATCH',2),(2,'GLOBAL',2)):
        r=learn(cpu, range(128), 2, lambda op:[0xDC000000|op<<18|seg<<14|1<<16],
            [F('offset',0,0,12,4,8), F('addr',1,0,8,20,24), F('data',1,8,8,30,34), F('saddr',1,16,7,sa,4 if sa!=0x7d else 0x7c), F('vdst',1,24,8,10,14)])
        flips(cpu,r,2,[0xffffc000 & ~(3<<16),0])
        d[cpu][nm+'_GLC']=r
json.dump(d,open('other_learn.json','w'),indent=0)
