from learn import *
import json
d=json.load(open('dpp_learn.json'))
SKIP={'VOP1':0xfe01ffff,'VOP2':0xfe0001ff,'VOPC':0xfffe01ff}
for cpu in ('gfx1013','gfx1030'):
    for key,info in d[cpu].items():
        fam=key.split('_')[0]
        sub={}
        for op,i in info.items(): sub[op]=dict(i); sub[op]['rej']=[0,0]; sub[op]['fliptext']={}
        flips(cpu,sub,2,[SKIP[fam],0xffffffff])
        for op,i in info.items():
            i['rej'][0]|=sub[op]['rej'][0]
            for k,v in sub[op]['fliptext'].items():
                if k.startswith('0.'): i['fliptext'][k]=v
        print(cpu,key,flush=True)
json.dump(d,open('dpp_learn.json','w'),indent=0)
