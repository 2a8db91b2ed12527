from learn import *
import sys
F=Field
def run(cpu):
    res={}
    res['SOP2']=learn(cpu, range(0x60), 1, lambda op:[0x80000000|op<<23],
        [F('sdst',0,16,7,10,14), F('ssrc0',0,0,8,20,24), F('ssrc1',0,8,8,30,34)])
    flips(cpu,res['SOP2'],1,[0xff800000])
    res['SOPK']=learn(cpu, range(0x1d), 1, lambda op:[0xB0000000|op<<23],
        [F('sdst',0,16,7,10,14), F('simm16',0,0,16,0x1234,0x1238,False)])
    flips(cpu,res['SOPK'],1,[0xff800000])
    res['SOP1']=learn(cpu, range(256), 1, lambda op:[0xBE800000|op<<8],
        [F('sdst',0,16,7,10,14), F('ssrc0',0,0,8,20,24)])
    flips(cpu,res['SOP1'],1,[0xff80ff00])
    res['SOPC']=learn(cpu, range(128), 1, lambda op:[0xBF000000|op<<16],
        [F('ssrc0',0,0,8,20,24), F('ssrc1',0,8,8,30,34)])
    flips(cpu,res['SOPC'],1,[0xffff0000])
    res['SOPP']=learn(cpu, range(128), 1, lambda op:[0xBF800000|op<<16],
        [F('simm16',0,0,16,3,7)])
    flips(cpu,res['SOPP'],1,[0xffff0000])
    res['SMEM']=learn(cpu, range(256), 2, lambda op:[0xF4000000|op<<18],
        [F('sdata',0,6,7,10,14), F('sbase',0,0,6,1,2), F('offset',1,0,21,0x10,0x14), F('soffset',1,25,7,0x7d,5,False)])
    flips(cpu,res['SMEM'],2,[0xfffc0000,0])
    res['VINTRP']=learn(cpu, range(4), 1, lambda op:[0xC8000000|op<<16],
        [F('vdst',0,18,8,10,14), F('vsrc',0,0,8,20,24), F('attr',0,10,6,3,5), F('chan',0,8,2,1,2)])
    flips(cpu,res['VINTRP'],1,[0xfc03ffff])
    res['DS']=learn(cpu, range(256), 2, lambda op:[0xD8000000|op<<18],
        [F('offset0',0,0,8,4,8), F('offset1',0,8,8,8,12), F('addr',1,0,8,20,24), F('data0',1,8,8,30,34), F('data1',1,16,8,40,44), F('vdst',1,24,8,10,14)])
    flips(cpu,res['DS'],2,[0xfffc0000,0])
    res['MUBUF']=learn(cpu, range(256), 2, lambda op:[0xE0000000|op<<18|1<<12],
        [F('offset',0,0,12,4,8), F('vaddr',1,0,8,20,24), F('vdata',1,8,8,10,14), F('srsrc',1,16,5,1,2), F('soffset',1,24,8,3,5)])
    flips(cpu,res['MUBUF'],2,[0xfffc0000,0])
    res['MTBUF']=learn(cpu, range(16), 2, lambda op:[0xE8000000|(op&7)<<16|1<<12, (op>>3)<<21],
        [F('offset',0,0,12,4,8), F('format',0,19,7,22,23,False), F('vaddr',1,0,8,20,24), F('vdata',1,8,8,10,14), F('srsrc',1,16,5,1,2), F('soffset',1,24,8,3,5)])
    flips(cpu,res['MTBUF'],2,[0xfc070000,1<<21])
    for seg,nm,sa in ((0,'FLAT',0x7d),(1,'SCRATCH',2),(2,'GLOBAL',2)):
        res[nm]=learn(cpu, range(128), 2, lambda op:[0xDC000000|op<<18|seg<<14],
            [F('offset',0,0,12,4,8), F('addr',1,0,8,20,24), F('data',1,8,8,30,34), F('saddr',1,16,7,sa,4 if sa!=0x7d else 0x7c), F('vdst',1,24,8,10,14)])
        flips(cpu,res[nm],2,[0xffffc000 & ~(3<<16),0])
    return res
out={c:run(c) for c in ('gfx1013','gfx1030')}
json.dump(out,open('other_learn.json','w'),indent=0)
for c in out:
    for k,v in out[c].items(): print(c,k,len(v))
